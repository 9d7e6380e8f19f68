// float4 arithmetic per thread, a square root, and the largest length of
// the whole dispatch: each wave's maximum, then one atomic per wave.

StructuredBuffer<float4> Points : register(t0);
RWStructuredBuffer<float> Length : register(u0);
RWByteAddressBuffer Largest : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    float4 p = Points[dtid.x];
    float4 q = p * float4(0.5f, 0.25f, 2.0f, 1.0f) + float4(1.0f, 2.0f, 3.0f, 4.0f);
    float d = sqrt(dot(q, q));
    Length[dtid.x] = d;
    float m = WaveActiveMax(d);
    if (WaveIsFirstLane())
        Largest.InterlockedMax(0, asuint(m));
}
