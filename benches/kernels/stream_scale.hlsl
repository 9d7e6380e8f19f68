// A streaming pass as user code writes one: each thread reads an element,
// scales it and writes it out.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    Output[dtid.x] = Input[dtid.x] * 3u + 1u;
}
