"""K shortest loopless paths (`maxflow paths`): the graph layout, Yen's algorithm on the CPU,
and the MPS and Yen kernels of Reis, Espíndola, Souza & Milanés (seed 001) with their twins."""
