StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    Out[gi] = In[gi]; // FINDING: out-of-bounds-resource
}
