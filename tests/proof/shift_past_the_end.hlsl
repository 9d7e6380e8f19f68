// Shifts the input right by one element. The last of the 1024 threads
// writes Out[1024], one past the end of Out: D3D12 drops the write, so the
// check passes with a note at the store. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    if (dtid.x == 0)
        Out[0] = 0;
    Out[dtid.x + 1] = In[dtid.x];
}
