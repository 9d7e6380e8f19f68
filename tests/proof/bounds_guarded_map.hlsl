// Element-wise map over the first 1000 elements, guarded so that the extra
// threads of the last group do nothing. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define COUNT 1000

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    if (dtid.x < COUNT)
        Out[dtid.x] = In[dtid.x] * 3 + 1;
}
