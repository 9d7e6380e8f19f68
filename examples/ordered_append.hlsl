// Ordered append, from the WavePrefixSum example of the HLSL wave
// intrinsics specification: each lane appends a varying number of items
// (0 to 3); the items land contiguously, in thread order, with one atomic
// per wave.
//
// Each group appends to its own region of Output and its own counter, so
// the result does not depend on the order groups run in.
//
// Several waves share a group's counter. On a GPU the order they reach it
// in is not fixed, so with the specification's code the waves' blocks land
// in any order (`lockstep check` reports it: see
// tests/check/wave_order_append.hlsl). Here the waves take turns at the
// counter in wave order, one turn per barrier, so the output is in thread
// order on every device.

StructuredBuffer<uint> ItemCounts : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWByteAddressBuffer BufferSize : register(u1);

#define GROUP_SIZE 32
#define MAX_ITEMS 3

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint3 gtid : SV_GroupThreadID)
{
    uint NumberOfItemsToAppend = ItemCounts[dtid.x];
    bool doesThisLaneHaveAnAppendItem = (NumberOfItemsToAppend) ? 1 : 0;

    // compute number of items to append for the whole wave
    // (the specification counts the lanes that append with
    // WaveActiveCountBits(doesThisLaneHaveAnAppendItem); reserving room for
    // every item needs the sum of the counts)
    uint appendCount = WaveActiveSum(NumberOfItemsToAppend);

    // compute number of locations filled before this one
    uint laneAppendOffset = WavePrefixSum(NumberOfItemsToAppend);

    // update the output location for this whole wave
    uint appendOffset;
    uint waveIndex = gtid.x / WaveGetLaneCount();
    uint waveCount = (GROUP_SIZE + WaveGetLaneCount() - 1) / WaveGetLaneCount();
    for (uint turn = 0; turn < waveCount; ++turn)
    {
        if (turn == waveIndex && WaveIsFirstLane()) // execute only once per wave
        {
            // this way, we only issue one atomic for the entire wave, which reduces contention
            // and keeps the output data for each lane in this wave together in the output buffer
            BufferSize.InterlockedAdd(gid.x * 4, appendCount, appendOffset);
        }
        DeviceMemoryBarrierWithGroupSync();
    }
    appendOffset = WaveReadLaneFirst(appendOffset); // broadcast value
    appendOffset += laneAppendOffset; // and add in the offset for this lane
    if (doesThisLaneHaveAnAppendItem)
    {
        for (uint i = 0; i < NumberOfItemsToAppend; ++i)
            Output[gid.x * GROUP_SIZE * MAX_ITEMS + appendOffset + i] = dtid.x * 10 + i; // write to the offset location for this lane
    }
}
