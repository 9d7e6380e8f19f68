RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint value;
    if (gi % 2 == 0)
        value = gi;
    // Odd lanes never assigned `value`.
    Out[gi] = value; // FINDING: undefined-value
}
