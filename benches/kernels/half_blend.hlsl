// 16-bit arithmetic (compile with -enable-16bit-types): half4 colours
// blended with a neighbour's by their alpha, then a tone curve, all in
// half precision; each element read and written as four halves.

StructuredBuffer<half4> Colors : register(t0);
RWStructuredBuffer<half4> Blended : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    half4 c = Colors[dtid.x];
    half4 d = Colors[dtid.x ^ 1u];
    half a = c.w * (half)0.5;
    half4 r = c * a + d * ((half)1.0 - a);
    r = r * r * (half)0.75 + (half)0.125;
    Blended[dtid.x] = r;
}
