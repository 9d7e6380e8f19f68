// Compacted write to an ordered stream, from the WavePrefixCountBits example
// of the HLSL wave intrinsics specification: each lane keeps its value when
// it is not a multiple of 3, and the kept values land contiguously, in
// thread order, with one atomic per wave.
//
// Each group appends to its own region of Output (64 slots) and its own
// counter, so the result does not depend on the order groups run in.
//
// Several waves share a group's counter. On a GPU the order they reach it
// in is not fixed, so with the specification's code the waves' blocks land
// in any order (`lockstep check` reports it: see
// tests/check/wave_order_append.hlsl). Here the waves take turns at the
// counter in wave order, one turn per barrier, so the output is in thread
// order on every device.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWByteAddressBuffer Counter : register(u1);

#define GROUP_SIZE 64

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint3 gtid : SV_GroupThreadID)
{
    uint myData = Input[dtid.x];
    bool bDoesThisLaneHaveAnAppendItem = (myData % 3) != 0;
    // compute number of items to append for the whole wave
    uint laneAppendOffset = WavePrefixCountBits(bDoesThisLaneHaveAnAppendItem);
    uint appendCount = WaveActiveCountBits(bDoesThisLaneHaveAnAppendItem);
    // update the output location for this whole wave
    uint appendOffset;
    uint waveIndex = gtid.x / WaveGetLaneCount();
    uint waveCount = (GROUP_SIZE + WaveGetLaneCount() - 1) / WaveGetLaneCount();
    for (uint turn = 0; turn < waveCount; ++turn)
    {
        if (turn == waveIndex && WaveIsFirstLane())
        {
            // this way, we only issue one atomic for the entire wave, which reduces contention
            // and keeps the output data for each lane in this wave together in the output buffer
            Counter.InterlockedAdd(gid.x * 4, appendCount, appendOffset);
        }
        DeviceMemoryBarrierWithGroupSync();
    }
    appendOffset = WaveReadLaneFirst(appendOffset); // broadcast value
    appendOffset += laneAppendOffset; // and add in the offset for this lane
    // The specification writes from every lane; only lanes with an item
    // write here, so no two lanes store to the same slot.
    if (bDoesThisLaneHaveAnAppendItem)
        Output[gid.x * GROUP_SIZE + appendOffset] = myData; // write to the offset location for this lane
}
