"""python -m devcheck [options] [--] program [args]: the devcheck command."""
from devcheck._launcher import main

main()
