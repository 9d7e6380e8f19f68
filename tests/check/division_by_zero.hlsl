StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint d = In[gi] - 4;
    Out[gi] = 100 / d; // FINDING: division-by-zero
}
