// Sums each aligned group of four lanes with two XOR butterfly shuffles
// (WaveReadLaneAt with lane ^ 1, then lane ^ 2). Clean. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint lane = WaveGetLaneIndex();
    uint v = In[dtid.x];
    v += WaveReadLaneAt(v, lane ^ 1);
    v += WaveReadLaneAt(v, lane ^ 2);
    Out[dtid.x] = v;
}
