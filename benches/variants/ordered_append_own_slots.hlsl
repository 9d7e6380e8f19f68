// `ordered_append` with its counter but without its shared output: each
// wave still reserves its space with one InterlockedAdd on the single
// counter and broadcasts the offset, but each kept lane writes its
// reserved slot (plus one) to its own element, `Output[dtid.x]`, instead
// of its value to the reserved slot. The two workers then share only the
// counter's cache line, not the lines at the front of the output stream.
// A variant for timing what that sharing costs, over the suite kernel's
// buffers; the suite's tests check that the slots are 0 to count - 1,
// each once.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWByteAddressBuffer BufferSize : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint myData = Input[dtid.x];
    bool bDoesThisLaneHaveAnAppendItem = (myData % 3) != 0;
    uint laneAppendOffset = WavePrefixCountBits(bDoesThisLaneHaveAnAppendItem);
    uint appendCount = WaveActiveCountBits(bDoesThisLaneHaveAnAppendItem);
    uint appendOffset;
    if (WaveIsFirstLane())
    {
        BufferSize.InterlockedAdd(0, appendCount, appendOffset);
    }
    appendOffset = WaveReadLaneFirst(appendOffset);
    appendOffset += laneAppendOffset;
    if (bDoesThisLaneHaveAnAppendItem)
        Output[dtid.x] = appendOffset + 1;
}
