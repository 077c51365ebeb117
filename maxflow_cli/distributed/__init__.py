"""Push-relabel over MPI ranks (the `mpi` solver): partition, each rank's rounds, the launcher."""
