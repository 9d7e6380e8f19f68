// Enforcing uniform control flow with WaveActiveAllTrue (the article's
// WaveAllTrue): when every lane of the wave can take the fast path, the
// whole wave does; otherwise the whole wave takes the general path. Both
// paths compute the same function, so the output does not depend on the
// wave size, only the work done does.

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);

// The general path: the sum of 1..n, computed in 64 bits and clamped to
// 32 bits.
uint SlowTriangle(uint n)
{
    uint64_t sum = 0;
    for (uint i = 1; i <= n; ++i)
        sum += i;
    return (uint)min(sum, 0xFFFFFFFFull);
}

[numthreads(32, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint n = Input[dtid.x];
    // The closed form n(n+1)/2 fits in 32 bits for n < 65536.
    bool fastPath = n < 65536;
    bool useFastPath = WaveActiveAllTrue(fastPath);
    uint result;
    if (useFastPath)
    {
        // All threads go through the fast path
        result = n * (n + 1) / 2;
    }
    else
    {
        // All threads go through the general path
        result = SlowTriangle(min(n, 100000u));
    }
    Output[dtid.x] = result;
}
