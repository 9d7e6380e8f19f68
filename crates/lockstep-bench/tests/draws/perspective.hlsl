// Two triangles at different depths and w: perspective-correct,
// screen-linear and flat attributes, and which side faces the viewer.

struct V {
    float4 position : SV_Position;
    float4 smooth : COLOR0;
    noperspective float2 screen : TEXCOORD0;
    nointerpolation float flat : TEXCOORD1;
};

V VSMain(float4 position : POSITION, float4 color : COLOR) {
    V v;
    v.position = position;
    v.smooth = color;
    v.screen = color.yz;
    v.flat = color.x;
    return v;
}

float4 PSMain(V v, bool front : SV_IsFrontFace) : SV_Target {
    return float4(v.smooth.x * 0.5 + v.screen.x * 0.25, v.smooth.y, v.screen.y, v.flat * (front ? 1.0 : 0.5));
}
