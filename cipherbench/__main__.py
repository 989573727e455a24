from cipherbench.cli import main

main()
