// Coherent per-group append with four waves, from the numWaves proposal
// (0054), "Improved Memory Coherency Example": wave 0 sums the output
// counts of all waves, issues a single atomic for the whole group and hands
// each wave its write offset, so a group's outputs are contiguous and in a
// fixed order.
//
// The order between groups is not fixed: groups reach the counter in any
// order, so DataBufferUAV is an append stream whose blocks may land in any
// order. The pragma tells `lockstep check` so (other compilers ignore it): it
// then checks that the same elements are written whatever the order.
//
// One pipeline serves every wave size. It dispatches enough groups for the
// smallest tile (wave size 16); at larger sizes the tiles are taller and the
// groups past the bottom of the image export nothing.
#pragma lockstep unordered(DataBufferUAV)

// tile width is fixed, height is variable based on wave size
// the Dispatch to account for the variability in height based on querying the wave size of the PSO
#define TILE_WIDTH 16

Texture2D<uint> GBuffer : register(t0);
RWStructuredBuffer<uint> CountBufferUAV : register(u0);
RWStructuredBuffer<uint> DataBufferUAV : register(u1);

// used first to sum the number of outputs per wave, then as the per wave write offset
groupshared uint g_waveStore[ GetGroupNumWaves() - 1 ];

// ranged size [16, 32 or 64], each wave will process a height of 1, 2 or 4 pixels respectively,
// meaning the threadgroup will process 16x4, 16x8 or 16x16 pixels depending on wave size
[numWaves(4)]
[WaveSize(16, 64)]              // ranged size [16, 32 or 64]
void Main( uint2 tile : SV_GroupID )
{
    // compute height processed by a wave and a thread group (constant to compiler)
    uint waveHeight = WaveGetLaneCount() / TILE_WIDTH;
    uint tileHeight = waveHeight * GroupGetWaveCount();

    // compute coordinate of tile
    uint2 coord = tile.xy * uint2( TILE_WIDTH, tileHeight );

    // compute coordinate of wave
    coord.y += GroupGetWaveIndex() * waveHeight;

    // compute coordinate of lane
    coord += uint2( WaveGetLaneIndex() % TILE_WIDTH, WaveGetLaneIndex() / TILE_WIDTH );

    // do conditional filtering operation, could be anything
    // (the proposal's `<whatever>` is pseudo-code: here, pixels marked 1)
    // (the groups past the image export nothing)
    uint width, height;
    GBuffer.GetDimensions( width, height );
    bool exportData = ( coord.y < height && GBuffer[ coord ] == 1 ) ? true : false;

    // sum the number of outputs to per wave groupshared memory
    uint count = WaveActiveCountBits( exportData );

    if( GroupGetWaveIndex() != 0 ) {
        g_waveStore[ GroupGetWaveIndex() - 1 ] = count;

        if( count == 0 )
            return;     // wave no longer needed, do not retire wave0 though!
    }
    GroupMemoryBarrierWithGroupSync();

    // wave0 sums the per-wave count and does a single atomic add to get the write offset for the entire thread group
    uint waveWriteOffset;
    if( GroupGetWaveIndex() == 0 ) {
         uint threadGroupSum = count;
         for( uint j=0; j < GetGroupNumWaves() - 1; ++j )
             threadGroupSum += g_waveStore[j];

         // The proposal writes `AtomicAdd( CountBufferUAV[0], threadGroupSum, &waveWriteOffset )`
         // for every lane of wave 0, which would add the sum once per lane (W
         // times): one lane adds it here, and the offset is broadcast.
         if( WaveIsFirstLane() )
             InterlockedAdd( CountBufferUAV[0], threadGroupSum, waveWriteOffset );
         waveWriteOffset = WaveReadLaneFirst( waveWriteOffset );

         // compute per wave write offsets
         uint waveWriteOffsetItr = waveWriteOffset + count;   // wave0's section of the write buffer
         for( uint j=0; j < GetGroupNumWaves() - 1; ++j )  {
             uint waveCount = g_waveStore[j];
             g_waveStore[j] = waveWriteOffsetItr;             // wave's write offset into the write buffer
             waveWriteOffsetItr += waveCount;                 // wave's count
         }
    }
    GroupMemoryBarrierWithGroupSync();

    // all waves > 0 retrieve their write offset
    if( GroupGetWaveIndex() != 0 )
         waveWriteOffset = g_waveStore[ GroupGetWaveIndex() - 1 ] ;

    uint threadWriteIndex = waveWriteOffset + WavePrefixCountBits( exportData );
    if( exportData )
        DataBufferUAV[ threadWriteIndex ] = (coord.x & 0xffff) | (coord.y << 16);
}
