RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint limit;
    if (gi < 32)
        limit = gi % 5;
    // Lanes 32 and up never assigned `limit`: how often they loop is
    // undefined, though what they store is not.
    uint n = 0;
    for (uint i = 0; i < limit; ++i) // FINDING: undefined-value
        n += 2;
    Out[gi] = n;
}
