// Sum and max of each quad of threads with QuadReadAcrossX/Y/Diagonal, called
// at the top level with every lane active. Clean. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint v = In[dtid.x];
    uint x = QuadReadAcrossX(v);
    uint y = QuadReadAcrossY(v);
    uint d = QuadReadAcrossDiagonal(v);

    uint sum = v + x + y + d;
    uint hi = max(max(v, x), max(y, d));
    Out[dtid.x] = (hi << 16) | sum;
}
