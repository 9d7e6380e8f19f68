// flags: -T cs_6_6 -enable-16bit-types
// Math and bit built-ins, with -enable-16bit-types and 64-bit values.
StructuredBuffer<float4> In : register(t0);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<uint4> Bits : register(u1);
RWStructuredBuffer<double> Wide : register(u2);
RWStructuredBuffer<half2> Half : register(u3);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float4 x = In[id.x];
    float4 r = abs(x) + min(x, 1) + max(x, -1) + clamp(x, 0, 2) + saturate(x);
    r += floor(x) + ceil(x) + round(x) + trunc(x) + frac(x) + fmod(x, 3);
    r += sqrt(abs(x)) + rsqrt(abs(x) + 1) + rcp(x + 4);
    r += exp(x) + exp2(x) + log(abs(x) + 1) + log2(abs(x) + 1) + log10(abs(x) + 1) + pow(abs(x), 1.5);
    r += sin(x) + cos(x) + tan(x) + asin(saturate(x)) + acos(saturate(x)) + atan(x) + atan2(x, x + 1);
    r += sinh(x) + cosh(x) + tanh(x) + lerp(x, x * 2, 0.25) + step(0.5, x) + smoothstep(0, 1, x);
    r += mad(x, x, 1) + float4(cross(x.xyz, x.zyx), 0) + dot(x, x) + length(x) + distance(x, 1);
    r += normalize(x + 1);
    float4x4 m = float4x4(x, x.yzwx, x.zwxy, x.wxyz);
    r += mul(m, x) + mul(x, m) + mul(transpose(m), x) + mul(m, m)[2];
    r += float4(isnan(x)) + float4(isinf(x)) + float4(isfinite(x)) + sign(x);
    Out[id.x] = r;
    uint u = asuint(x.x);
    int s = asint(x.y);
    uint64_t w = (uint64_t(u) << 32) | uint(s);
    int64_t sw = -int64_t(w);
    Bits[id.x] = uint4(countbits(u) + countbits(w), firstbithigh(u) + firstbithigh(s) + firstbithigh(sw),
                       firstbitlow(u) + firstbitlow(w), reversebits(u) + uint(reversebits(w)));
    Bits[id.x + 32] = uint4(f32tof16(x.x), asuint(f16tof32(u)), any(x) ? 1 : 0, all(x) ? 1 : 0);
    Bits[id.x + 64] = uint4(u / (id.x + 1), s / int(id.x), u % 7, s % -3) + uint4(u << id.x, s >> id.x, ~u, -s);
    double dd = asdouble(u, uint(s));
    Wide[id.x] = fma(dd, dd, 1.0) + dd / 3.0 + double(x.x) + floor(dd);
    half2 h = half2(x.xy);
    Half[id.x] = h * h + sin(h) + half2(uint16_t(u), int16_t(s));
    int clamped = int(x.z * 1e10);
    Bits[id.x + 96] = uint4(clamped, uint(x.w * -1e10), uint(x.w), int(x.x));
}
