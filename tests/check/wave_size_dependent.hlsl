RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    // Written for 32-lane waves: the count is the wave's, not the group's.
    Out[gi] = WaveActiveCountBits(true); // FINDING: portability
}
