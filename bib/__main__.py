from bib.cli import main

main()
