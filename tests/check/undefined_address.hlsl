RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    // Only the first lane sets `slot`; the others add at an undefined
    // element (the usual fix: WaveReadLaneFirst(slot)).
    uint slot;
    if (WaveIsFirstLane())
        slot = gi % 4u;
    InterlockedAdd(Out[slot], 1u); // FINDING: undefined-value
}
