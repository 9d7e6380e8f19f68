// Exclusive prefix sum of each block of 256 elements: WavePrefixSum within a
// wave, the wave totals scanned through groupshared memory by the first
// wave (in chunks of its own width, so any wave size works), then each lane
// adds its wave's offset.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);

// WavePrefixSum is exclusive: the sum over the lanes before this one.
// glslang compiles it as an inclusive scan, so the SPIR-V build of this
// kernel (scripts/peer.sh) defines WAVE_PREFIX_INCLUSIVE and subtracts the
// lane's own value.
#ifdef WAVE_PREFIX_INCLUSIVE
#define EXCLUSIVE_PREFIX_SUM(x) (WavePrefixSum(x) - (x))
#else
#define EXCLUSIVE_PREFIX_SUM(x) WavePrefixSum(x)
#endif

#define GROUP_SIZE 256
// Enough for the smallest wave size (4 lanes).
#define MAX_WAVES (GROUP_SIZE / 4)

groupshared uint WaveTotals[MAX_WAVES];
groupshared uint WaveOffsets[MAX_WAVES];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint lanes = WaveGetLaneCount();
    uint lane = WaveGetLaneIndex();
    uint wave = gi / lanes;
    uint numWaves = GROUP_SIZE / lanes;

    uint x = Input[dtid.x];
    uint prefix = EXCLUSIVE_PREFIX_SUM(x);
    if (lane == lanes - 1)
        WaveTotals[wave] = prefix + x;
    GroupMemoryBarrierWithGroupSync();

    if (wave == 0)
    {
        uint carry = 0;
        for (uint base = 0; base < numWaves; base += lanes)
        {
            uint i = base + lane;
            uint t = 0;
            if (i < numWaves)
                t = WaveTotals[i];
            uint offset = carry + EXCLUSIVE_PREFIX_SUM(t);
            if (i < numWaves)
                WaveOffsets[i] = offset;
            carry += WaveActiveSum(t);
        }
    }
    GroupMemoryBarrierWithGroupSync();

    Output[dtid.x] = WaveOffsets[wave] + prefix;
}
