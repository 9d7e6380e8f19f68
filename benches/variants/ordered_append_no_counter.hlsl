// `ordered_append` with nothing shared: the same wave intrinsics, but no
// counter, and each kept lane writes its place in its wave's part of the
// stream (the wave's count in the high half, the lane's offset in the
// low) to its own element, `Output[dtid.x]`. A variant for timing the
// kernel's work without its counter and its shared output, over the
// suite kernel's buffers; the suite's tests check the words wave by wave.

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
    uint wavePart = WaveReadLaneFirst(appendCount << 16);
    if (bDoesThisLaneHaveAnAppendItem)
        Output[dtid.x] = wavePart | laneAppendOffset;
}
