RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g[64];
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    // The write of a later wave conflicts with the read of an earlier one:
    // no barrier separates them.
    g[gi] = gi; // FINDING: groupshared-race
    // The first waves also read words no wave has written yet.
    Out[gi] = g[63 - gi]; // ALSO: uninitialized-groupshared
}
