// One triangle with a colour at each corner: the rasterizer covers the
// pixels whose centres lie inside it and interpolates the colours,
// correcting for perspective.
//
//   lockstep run examples/draw/triangle.yaml examples/draw/triangle.hlsl \
//       examples/draw/triangle.hlsl -r Target -o triangle.png

struct Vertex {
    float4 position : SV_Position;
    float3 color : COLOR;
};

Vertex VSMain(float3 position : POSITION, float3 color : COLOR) {
    Vertex v;
    v.position = float4(position, 1);
    v.color = color;
    return v;
}

float4 PSMain(Vertex v) : SV_Target {
    return float4(v.color, 1);
}
