// Compacted ordered write, from the WavePrefixCountBits example of the HLSL
// wave intrinsics specification: each lane keeps its value when it is not a
// multiple of 3; the kept values of a wave land contiguously, with one
// atomic per wave reserving the wave's space in a single global stream.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWByteAddressBuffer BufferSize : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint myData = Input[dtid.x];
    bool bDoesThisLaneHaveAnAppendItem = (myData % 3) != 0;
    // compute number of items to append for the whole wave
    uint laneAppendOffset = WavePrefixCountBits(bDoesThisLaneHaveAnAppendItem);
    uint appendCount = WaveActiveCountBits(bDoesThisLaneHaveAnAppendItem);
    // update the output location for this whole wave
    uint appendOffset;
    if (WaveIsFirstLane())
    {
        // one atomic for the entire wave
        BufferSize.InterlockedAdd(0, appendCount, appendOffset);
    }
    appendOffset = WaveReadLaneFirst(appendOffset); // broadcast value
    appendOffset += laneAppendOffset; // and add in the offset for this lane
    if (bDoesThisLaneHaveAnAppendItem)
        Output[appendOffset] = myData;
}
