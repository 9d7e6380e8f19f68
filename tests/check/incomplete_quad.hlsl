RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi % 4 != 3)
    {
        // ALSO: undefined-value (lane 2 of each quad reads the inactive lane 3)
        Out[gi] = QuadReadAcrossX(gi); // FINDING: incomplete-quad
    }
}
