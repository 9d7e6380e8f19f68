// Splits each input into buckets sized from its neighbour. Bug: the bucket
// size `In[...] % 7` is zero for some elements, so the division divides by
// zero. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint bucketSize = In[(dtid.x + 1) & 1023] % 7;
    Out[dtid.x] = In[dtid.x] / bucketSize;
}
