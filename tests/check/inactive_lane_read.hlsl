StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi % 2 == 0)
    {
        // Odd lanes are inactive here; reading lane+1 reads one of them.
        // ALSO: undefined-value (the value read is stored)
        Out[gi] = WaveReadLaneAt(gi, WaveGetLaneIndex() + 1); // FINDING: inactive-lane-read
    }
}
