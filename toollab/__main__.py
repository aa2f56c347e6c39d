from toollab.interfaces.cli import app

app()
