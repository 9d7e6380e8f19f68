RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    // Lane 40 exists only in waves of more than 40 lanes; smaller waves
    // have no such lane, and what the read returns is undefined.
    // ALSO: undefined-value (the value read is stored)
    Out[gi] = WaveReadLaneAt(gi * 3u, 40); // FINDING: lane-out-of-range
}
