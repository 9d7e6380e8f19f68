// Reserving space in a buffer from the last lane of the wave: WavePrefixSum
// gives each lane its offset, the last lane reserves room for the whole wave
// with one InterlockedAdd, and WaveReadLaneAt broadcasts the start (the
// "Reserving Space in a Buffer" example).
//
// The group has 128 threads, so at every wave size each wave is full and its
// last lane is active. Each group reserves from its own counter and writes
// its own region of DataBuffer.
//
// Several waves share a group's counter. On a GPU the order they reach it
// in is not fixed, so with the specification's code the waves' blocks land
// in any order (`lockstep check` reports it: see
// tests/check/wave_order_append.hlsl). Here the waves take turns at the
// counter in wave order, one turn per barrier, so the output is in thread
// order on every device.

StructuredBuffer<uint> ItemCounts : register(t0);
RWStructuredBuffer<uint> DataBuffer : register(u0);
RWByteAddressBuffer CounterBuffer : register(u1);

#define GROUP_SIZE 128
#define MAX_ITEMS 3

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint3 gtid : SV_GroupThreadID)
{
    const uint value = dtid.x;
    // The number of items that this lane has to write to the buffer
    const uint laneNumItems = ItemCounts[dtid.x];
    // The offset in the reserved space where this lane can write its items
    const uint laneOffset = WavePrefixSum(laneNumItems);
    // The starting offset for the space reserved by the whole warp
    uint absoluteOffset;
    uint waveIndex = gtid.x / WaveGetLaneCount();
    uint waveCount = GROUP_SIZE / WaveGetLaneCount();
    for (uint turn = 0; turn < waveCount; ++turn)
    {
        // The following statement will be executed only by the last lane in the warp
        if (turn == waveIndex && WaveGetLaneIndex() == WaveGetLaneCount() - 1)
        {
            uint totalNumItems = laneOffset + laneNumItems;
            CounterBuffer.InterlockedAdd(gid.x * 4, totalNumItems, absoluteOffset);
        }
        DeviceMemoryBarrierWithGroupSync();
    }
    absoluteOffset = WaveReadLaneAt(absoluteOffset, WaveGetLaneCount() - 1);
    // Each lane writes its items at the designated offset
    for (uint i = 0; i < laneNumItems; i++)
    {
        DataBuffer[gid.x * GROUP_SIZE * MAX_ITEMS + absoluteOffset + laneOffset + i] = value;
    }
}
