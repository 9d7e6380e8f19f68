// Min/max depth of 8x8 tiles with two waves per thread group and wave
// specialisation, from the numWaves proposal (0054), "Two Wave Example":
// the second wave hands its result to the first through groupshared memory
// and retires; the first collates and writes.

#define TILE_SIZE 8
// Not predefined in HLSL: the largest float.
#define FLT_MAX 3.402823466e+38f

Texture2D<float> Depth : register(t0);
RWTexture2D<uint> TileMinMaxDepthUAV : register(u0);

groupshared float g_wave1minZ;
groupshared float g_wave1maxZ;

[numWaves(2)]
[WaveSize(8, 32)]                // ranged size [8, 16 or 32]
void ComputeMinMaxZ( uint2 tile : SV_GroupID )
{
    float minZ = FLT_MAX, maxZ = -FLT_MAX;

    uint laneIdx = WaveGetLaneIndex();
    uint2 coord = tile.xy * TILE_SIZE + uint2( laneIdx % TILE_SIZE, laneIdx / TILE_SIZE );
    // first wave does top half, second wave does bottom half
    // (the proposal assigns with `=`, which would drop the tile's and the
    // lane's rows computed above; `+=` keeps them)
    coord.y += GetGroupWaveIndex() * (TILE_SIZE / GetGroupNumWaves());

    // numIterations will be w8(4), w16(2), w32(1)
    // front end compile can optimise the below since GetGroupNumWaves is known
    uint numIterations = (TILE_SIZE * TILE_SIZE) / GetGroupNumWaves();
    // back end compiler can resolve numIterations to a single constant
    numIterations /= WaveGetLaneCount();

    for( uint i=0; i < numIterations; ++i ) {
         float z = Depth[ coord ];
         minZ = min( minZ, WaveActiveMin( z ) );
         maxZ = max( maxZ, WaveActiveMax( z ) );
         coord.y += WaveGetLaneCount() / TILE_SIZE;
    }
    // wave1 stores to LDS and retires, wave0 collates result and does write
    if( GetGroupWaveIndex() ) {
        g_wave1minZ = minZ;
        g_wave1maxZ = maxZ;
        return;
    }
    GroupMemoryBarrierWithGroupSync();

    minZ = min( minZ, g_wave1minZ );
    maxZ = max( maxZ, g_wave1maxZ );
    TileMinMaxDepthUAV[ tile.xy ] = (f32tof16( maxZ ) << 16) | f32tof16( minZ );
}
