// Reserving space in a buffer from the last lane of the wave: WavePrefixSum
// gives each lane its offset, the last lane reserves room for the whole wave
// with one InterlockedAdd, and WaveReadLaneAt broadcasts the start (the
// "Reserving Space in a Buffer" example).
//
// The group has 128 threads, so at every wave size each wave is full and its
// last lane is active. Each group reserves from its own counter and writes
// its own region of DataBuffer.

StructuredBuffer<uint> ItemCounts : register(t0);
RWStructuredBuffer<uint> DataBuffer : register(u0);
RWByteAddressBuffer CounterBuffer : register(u1);

#define GROUP_SIZE 128
#define MAX_ITEMS 3

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID)
{
    const uint value = dtid.x;
    // The number of items that this lane has to write to the buffer
    const uint laneNumItems = ItemCounts[dtid.x];
    // The offset in the reserved space where this lane can write its items
    const uint laneOffset = WavePrefixSum(laneNumItems);
    // The starting offset for the space reserved by the whole warp
    uint absoluteOffset;
    // The following statement will be executed only by the last lane in the warp
    if (WaveGetLaneIndex() == WaveGetLaneCount() - 1)
    {
        uint totalNumItems = laneOffset + laneNumItems;
        CounterBuffer.InterlockedAdd(gid.x * 4, totalNumItems, absoluteOffset);
    }
    absoluteOffset = WaveReadLaneAt(absoluteOffset, WaveGetLaneCount() - 1);
    // Each lane writes its items at the designated offset
    for (uint i = 0; i < laneNumItems; i++)
    {
        DataBuffer[gid.x * GROUP_SIZE * MAX_ITEMS + absoluteOffset + laneOffset + i] = value;
    }
}
