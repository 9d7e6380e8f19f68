// Several independent errors; every one is reported and parsing goes on.
struct S { float a; float b };
flaot g;
void f(int x, ) { return; }
void main()
{
    int a = ;
    a = 3 +;
    b = (1, 2;
    if (a) { a = 1 } else a = 2;
    for (int i = 0; i < 3; i++ { }
    case 3: a = 4;
    int ok = 1;
}
uint after() { return 1u; }
