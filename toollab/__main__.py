from toollab.interfaces.cli import main

main()
