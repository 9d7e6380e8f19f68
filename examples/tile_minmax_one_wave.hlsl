// Min/max depth of 8x8 tiles with a single wave per thread group, from the
// numWaves proposal (0054), "Single Wave Example". The wave size may be 8,
// 16, 32 or 64; the number of iterations adapts.

#define TILE_SIZE 8
// Not predefined in HLSL: the largest float.
#define FLT_MAX 3.402823466e+38f

Texture2D<float> Depth : register(t0);
RWTexture2D<uint> TileMinMaxDepthUAV : register(u0);

[numWaves(1)]
[WaveSize(8, 64)]     // ranged size [8, 16, 32 or 64]
void ComputeMinMaxZ( uint2 tile : SV_GroupID )
{
    float minZ = FLT_MAX, maxZ = -FLT_MAX;

    uint laneIdx = WaveGetLaneIndex();
    uint2 coord = tile.xy * TILE_SIZE + uint2( laneIdx % TILE_SIZE, laneIdx / TILE_SIZE );

    // numIterations will be w8(8), w16(4), w32(2), w64(1)
    // backend SC to pre-compute to single constant pls!
    uint numIterations = (TILE_SIZE * TILE_SIZE) / WaveGetLaneCount();

    for( uint i=0; i < numIterations; ++i ) {
         float z = Depth[ coord ];
         minZ = min( minZ, WaveActiveMin( z ) );
         maxZ = max( maxZ, WaveActiveMax( z ) );
         coord.y += WaveGetLaneCount() / TILE_SIZE;
    }
    TileMinMaxDepthUAV[ tile.xy ] = (f32tof16( maxZ ) << 16) | f32tof16( minZ );
}
