#include <algorithm>
#include <cstdio>
#include <vector>
#include <cstdint>
struct E { char type; int idx; };
struct C { bool operator()(E x, E y) { return x.type < y.type; } };
int main() {
  uint64_t st = 12345;
  auto rnd = [&]() { st = st * 6364136223846793005ULL + 1442695040888963407ULL; return (uint32_t)(st >> 33); };
  for (int n = 1; n <= 300; n += (n < 40 ? 1 : 13)) {
    std::vector<E> v(n);
    for (int i = 0; i < n; i++) { v[i].type = 1 + rnd() % 3; v[i].idx = i; }
    printf("%d", n);
    for (auto &e : v) printf(" %d", (int)e.type);
    std::sort(v.begin(), v.end(), C());
    printf(" :");
    for (auto &e : v) printf(" %d", e.idx);
    printf("\n");
  }
}
