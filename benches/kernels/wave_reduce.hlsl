// Sum of every element: WaveActiveSum within a wave, then one
// InterlockedAdd per wave into a single total.

StructuredBuffer<uint> Input : register(t0);
RWByteAddressBuffer Total : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint sum = WaveActiveSum(Input[dtid.x]);
    if (WaveIsFirstLane())
        Total.InterlockedAdd(0, sum);
}
