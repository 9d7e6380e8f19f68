// Exclusive prefix sum of each block of 256 elements, as block_scan, by a
// textbook Hillis–Steele scan in groupshared memory: no
// wave operations, two barriers in each of the loop's eight iterations.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);

#define GROUP_SIZE 256

groupshared uint Tile[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint x = Input[dtid.x];
    Tile[gi] = x;
    GroupMemoryBarrierWithGroupSync();
    for (uint s = 1; s < GROUP_SIZE; s <<= 1)
    {
        uint v = gi >= s ? Tile[gi - s] : 0;
        GroupMemoryBarrierWithGroupSync();
        Tile[gi] += v;
        GroupMemoryBarrierWithGroupSync();
    }
    Output[dtid.x] = Tile[gi] - x;
}
