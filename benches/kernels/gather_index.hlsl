// A gather through an index buffer: each thread reads an index, then the
// element it names, in no particular order.

StructuredBuffer<uint> Index : register(t0);
StructuredBuffer<float> Data : register(t1);
RWStructuredBuffer<float> Output : register(u0);

[numthreads(128, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint i = Index[dtid.x];
    Output[dtid.x] = Data[i] * 0.5f + (float)(i & 15u);
}
