// What a compiler makes of the wave prefix intrinsics: every lane writes
// its WavePrefixSum, WavePrefixProduct and WavePrefixCountBits, which
// `lockstep-peer` compares lane by lane with Lockstep's (exclusive scans,
// as the HLSL specification defines them). Compiled without the
// WAVE_PREFIX_INCLUSIVE workaround of benches/kernels/.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Sums : register(u0);
RWStructuredBuffer<uint> Products : register(u1);
RWStructuredBuffer<uint> Counts : register(u2);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint x = Input[dtid.x];
    Sums[dtid.x] = WavePrefixSum(x);
    Products[dtid.x] = WavePrefixProduct((x & 3) + 1);
    Counts[dtid.x] = WavePrefixCountBits((x & 1) != 0);
}
