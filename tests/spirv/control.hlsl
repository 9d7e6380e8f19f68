// Structured control flow: every loop form, switch with fallthrough,
// break and continue at every depth, early returns, short circuits.
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<int> Out : register(u0);

int classify(int v) {
    switch (v & 7) {
    case 0:
        return 10;
    case 1:
    case 2:
        v += 1;
    case 3:
        v *= 2;
        break;
    default:
        v = -v;
    }
    return v;
}

void accumulate(inout int total, out int steps, int n) {
    steps = 0;
    for (int i = 0; i < n; i++) {
        if (i == 3) continue;
        if (total > 1000) break;
        total += i;
        steps++;
    }
}

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int v = In[id.x];
    if (v < -100) {
        Out[id.x] = 0;
        return;
    }
    int total = 0;
    int steps;
    accumulate(total, steps, v & 15);
    int k = 0;
    do {
        k += 2;
        if (k == 6) continue;
        total ^= k;
    } while (k < 10);
    int w = 0;
    while (true) {
        w++;
        switch (w) {
        case 2:
            continue;
        case 5:
            break;
        default:
            total += WaveActiveSum(w);
        }
        if (w >= 5) break;
    }
    bool both = v > 3 && WaveActiveAnyTrue(v > 5);
    bool either = v < 0 || WaveActiveAllTrue(v < 9);
    int pick = v > 0 ? WavePrefixSum(v) : classify(v);
    Out[id.x] = total + steps + pick + (both ? 1 : 0) + (either ? 2 : 0);
}
