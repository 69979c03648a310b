"""The app's routes by concern; `create_app` (app.py) includes them in this order."""
