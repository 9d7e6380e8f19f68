RWStructuredBuffer<float> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    // Large and small magnitudes: the sum depends on the order lanes are
    // added in.
    float v = (WaveGetLaneIndex() == 0) ? 1e8f : 1.0f;
    Out[gi] = WaveActiveSum(v); // FINDING: order-dependence
}
