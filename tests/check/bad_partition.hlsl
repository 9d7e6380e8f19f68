RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    // Each lane names only the lane above it: not a partition.
    uint lane = WaveGetLaneIndex();
    uint4 mask = uint4(lane < 31 ? 2u << lane : 0u, 0, 0, 0);
    Out[gi] = WaveMultiPrefixSum(gi, mask); // FINDING: bad-partition
}
