RWStructuredBuffer<uint> Out : register(u0);
// SM 6.6 compute quads are 2x2 blocks of the group: a derivative under a
// branch that splits each quad reads lanes that do not run it. The finding
// is at the call, not inside the library's ddx.
[numthreads(8, 8, 1)]
void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    float v = id.x * id.y;
    if (id.x % 2 == 0)
    {
        // ALSO: undefined-value (the right column of each quad does not run)
        Out[gi] = (uint)ddx(v); // FINDING: incomplete-quad
    }
}
