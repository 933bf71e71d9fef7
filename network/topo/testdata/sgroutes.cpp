// sgroutes prints the route SimGrid gives between every pair of hosts
// node-0 … node-(N−1) of a platform: "src dst link link …" per line.
#include <cstdio>
#include <string>
#include <vector>
#include <simgrid/s4u.hpp>

int main(int argc, char** argv)
{
  simgrid::s4u::Engine e(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: sgroutes PLATFORM N\n");
    return 2;
  }
  e.load_platform(argv[1]);
  int n = std::stoi(argv[2]);
  std::vector<simgrid::s4u::Host*> hosts;
  for (int i = 0; i < n; i++)
    hosts.push_back(simgrid::s4u::Host::by_name("node-" + std::to_string(i)));
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      if (s == d)
        continue;
      std::vector<simgrid::s4u::Link*> links;
      double lat = 0;
      hosts[s]->route_to(hosts[d], links, &lat);
      std::printf("%d %d", s, d);
      for (auto* l : links)
        std::printf(" %s", l->get_cname());
      std::printf("\n");
    }
  return 0;
}
