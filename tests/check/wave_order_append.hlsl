// The compacted write of the wave intrinsics specification, with the waves
// of a group sharing one counter: each wave's block is contiguous, but the
// order the waves reach the counter in, and so the order of the blocks, is
// not fixed. examples/compact_write.hlsl makes the waves take turns.
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(32, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint myData = In[gi % 8] + gi;
    bool bDoesThisLaneHaveAnAppendItem = (myData % 3) != 0;
    uint laneAppendOffset = WavePrefixCountBits(bDoesThisLaneHaveAnAppendItem);
    uint appendCount = WaveActiveCountBits(bDoesThisLaneHaveAnAppendItem);
    uint appendOffset;
    if (WaveIsFirstLane())
        InterlockedAdd(Out[0], appendCount, appendOffset); // FINDING: order-dependence
    appendOffset = WaveReadLaneFirst(appendOffset);
    appendOffset += laneAppendOffset;
    if (bDoesThisLaneHaveAnAppendItem)
        Out[1 + appendOffset] = myData;
}
