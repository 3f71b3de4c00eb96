# Runner contract: __name__ is "__main__", argv holds only the script, sys.exit(3) is exit 3.
import os
import sys

import torch


def main():
    print(__name__, sys.argv[1:], os.path.basename(__file__))
    print(os.path.basename(sys.argv[0]))
    print(torch.ones(2).sum())
    sys.exit(3)


if __name__ == "__main__":
    main()
print("not reached")
