StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    // Each pair of threads means to write the pair's sum; both write.
    Out[gi / 2u] = In[gi] + In[gi ^ 1u] + (gi & 1u); // FINDING: conflicting-stores
}
