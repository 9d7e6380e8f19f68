// float4 shading arithmetic with transcendental calls: sin, cos, exp, log
// and pow on each component, then a weighted sum of the four.

StructuredBuffer<float4> Points : register(t0);
RWStructuredBuffer<float> Shade : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    float4 p = Points[dtid.x];
    float4 wave = sin(p * 0.01f) * cos(p * 0.02f);
    float4 falloff = exp(p * -0.002f) + log(p + 1.0f);
    float4 gloss = pow(p * 0.001f + 0.5f, 1.5f);
    Shade[dtid.x] = dot(wave * falloff + gloss, float4(0.1f, 0.2f, 0.3f, 0.4f));
}
