// Min/max depth of 8x8 tiles in the numthreads form: one group per tile,
// WaveActiveMin/Max within each wave, the waves combined with groupshared
// atomics (depths are non-negative, so their bit patterns order as uints),
// and the result packed as two halfs as in the numWaves proposal (0054).

#define TILE_SIZE 8

Texture2D<float> Depth : register(t0);
RWTexture2D<uint> TileMinMaxDepthUAV : register(u0);

groupshared uint g_minZ;
groupshared uint g_maxZ;

[numthreads(TILE_SIZE, TILE_SIZE, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 tile : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
    {
        g_minZ = 0x7F7FFFFF; // the largest float
        g_maxZ = 0;
    }
    GroupMemoryBarrierWithGroupSync();

    float z = Depth[dtid.xy];
    float minZ = WaveActiveMin(z);
    float maxZ = WaveActiveMax(z);
    if (WaveIsFirstLane())
    {
        InterlockedMin(g_minZ, asuint(minZ));
        InterlockedMax(g_maxZ, asuint(maxZ));
    }
    GroupMemoryBarrierWithGroupSync();

    if (gi == 0)
        TileMinMaxDepthUAV[tile.xy] = (f32tof16(asfloat(g_maxZ)) << 16) | f32tof16(asfloat(g_minZ));
}
