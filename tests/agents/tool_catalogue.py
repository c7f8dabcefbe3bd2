"""Fifty tools of an assistant, and questions labelled with the tools they need (for
`ToolSelector`'s ranking quality: recall@5)."""

from __future__ import annotations

from typing import Any

from leanchain.tools import BaseTool, StructuredTool

# name, description, {argument: description}
SPECS: list[tuple[str, str, dict[str, str]]] = [
    ("get_weather", "Current weather conditions for a city.", {"city": "The city name."}),
    (
        "get_forecast",
        "Weather forecast for the next days in a city.",
        {"city": "The city.", "days": "How many days."},
    ),
    ("air_quality", "Air pollution index for a location.", {"location": "City or area."}),
    (
        "send_email",
        "Send an email message to a recipient.",
        {"to": "Email address.", "subject": "Subject line.", "body": "Message text."},
    ),
    (
        "search_email",
        "Search the mailbox for emails matching a query.",
        {"query": "Words to look for."},
    ),
    ("read_email", "Read one email by its id.", {"email_id": "The email id."}),
    (
        "create_event",
        "Create a calendar event (a meeting or appointment).",
        {"title": "Event title.", "start": "Start time."},
    ),
    ("list_events", "List the calendar events of a day.", {"date": "The day."}),
    ("cancel_event", "Cancel a calendar event.", {"event_id": "The event id."}),
    ("read_file", "Read the contents of a file from disk.", {"path": "File path."}),
    ("write_file", "Write text to a file on disk.", {"path": "File path.", "text": "Contents."}),
    ("list_directory", "List the files in a directory (folder).", {"path": "Directory path."}),
    ("delete_file", "Delete a file from disk.", {"path": "File path."}),
    ("web_search", "Search the web for pages about a topic.", {"query": "Search words."}),
    ("fetch_url", "Download a web page by its URL.", {"url": "Page address."}),
    (
        "calculator",
        "Evaluate an arithmetic expression (add, multiply, divide).",
        {"expression": "The expression."},
    ),
    (
        "convert_units",
        "Convert a quantity between units (miles to kilometres, pounds to kilograms).",
        {"value": "The quantity.", "from_unit": "Unit.", "to_unit": "Unit."},
    ),
    (
        "currency_exchange",
        "Convert money between currencies at today's exchange rate.",
        {"amount": "Amount.", "from_currency": "Currency code.", "to_currency": "Currency code."},
    ),
    (
        "stock_price",
        "Latest stock price of a company by ticker symbol.",
        {"ticker": "Stock ticker."},
    ),
    ("sql_query", "Run a SQL query on the company database.", {"query": "SQL text."}),
    ("list_tables", "List the tables of the database.", {}),
    (
        "translate_text",
        "Translate text into another language.",
        {"text": "Text.", "language": "Target language."},
    ),
    ("summarize_text", "Summarise a long text in a few sentences.", {"text": "The text."}),
    ("spell_check", "Check the spelling of a text and suggest corrections.", {"text": "The text."}),
    (
        "book_flight",
        "Book a flight between two airports.",
        {"origin": "From.", "destination": "To.", "date": "Travel day."},
    ),
    (
        "search_flights",
        "Find flights between two cities on a date.",
        {"origin": "From.", "destination": "To.", "date": "Day."},
    ),
    ("book_hotel", "Reserve a hotel room in a city.", {"city": "City.", "nights": "Nights."}),
    ("rent_car", "Rent a car at a location.", {"location": "Pick-up place."}),
    (
        "get_directions",
        "Driving or walking directions between two places.",
        {"origin": "Start.", "destination": "End."},
    ),
    (
        "find_restaurant",
        "Find restaurants nearby by cuisine.",
        {"cuisine": "Kind of food.", "location": "Where."},
    ),
    (
        "order_food",
        "Order food delivery from a restaurant.",
        {"restaurant": "Restaurant.", "items": "Dishes."},
    ),
    ("add_to_cart", "Add a product to the shopping cart.", {"product_id": "Product."}),
    (
        "checkout",
        "Pay for the shopping cart and place the order.",
        {"payment_method": "Card or wallet."},
    ),
    (
        "track_package",
        "Track the delivery status of a parcel shipment.",
        {"tracking_number": "Tracking number."},
    ),
    (
        "create_ticket",
        "Open a support ticket for a customer issue.",
        {"title": "Issue.", "priority": "Priority."},
    ),
    ("close_ticket", "Close a resolved support ticket.", {"ticket_id": "Ticket."}),
    ("lookup_customer", "Look up a customer account by name or email.", {"name": "Customer name."}),
    (
        "create_invoice",
        "Create an invoice for a customer.",
        {"customer_id": "Customer.", "amount": "Amount due."},
    ),
    ("refund_payment", "Refund a customer's payment.", {"payment_id": "Payment."}),
    (
        "send_sms",
        "Send a text message (SMS) to a phone number.",
        {"phone": "Phone number.", "text": "Message."},
    ),
    ("make_call", "Start a phone call to a number.", {"phone": "Phone number."}),
    ("set_reminder", "Set a reminder at a time.", {"text": "What to remember.", "time": "When."}),
    ("set_timer", "Start a countdown timer for some minutes.", {"minutes": "Duration."}),
    ("play_music", "Play a song, album or playlist.", {"query": "What to play."}),
    ("news_headlines", "Today's news headlines on a topic.", {"topic": "Topic."}),
    (
        "wikipedia_lookup",
        "Look up an encyclopedia article on Wikipedia.",
        {"title": "Article title."},
    ),
    ("run_python", "Run a Python code snippet and return its output.", {"code": "Python source."}),
    ("git_commit", "Commit changes to the git repository.", {"message": "Commit message."}),
    (
        "create_issue",
        "Create an issue in the project's bug tracker.",
        {"title": "Issue title.", "body": "Details."},
    ),
    (
        "generate_image",
        "Generate an image (picture) from a text description.",
        {"prompt": "What to draw."},
    ),
]


def _tool(name: str, description: str, args: dict[str, str]) -> BaseTool:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {a: {"type": "string", "description": d} for a, d in args.items()},
        "required": list(args),
    }

    def run(**kwargs: Any) -> str:
        return f"{name} ran with {kwargs}"

    return StructuredTool(name=name, description=description, args_schema=schema, func=run)


def catalogue() -> list[BaseTool]:
    """The fifty tools, in a fixed order."""
    return [_tool(*spec) for spec in SPECS]


LABELLED: list[tuple[str, set[str]]] = [
    ("What's the weather like in Lisbon right now?", {"get_weather"}),
    ("Will it rain in Oslo over the next three days?", {"get_forecast"}),
    ("Email the quarterly report to ada@example.com", {"send_email"}),
    ("Find the emails from my landlord about the deposit", {"search_email"}),
    ("Schedule a meeting with Bob tomorrow at 10", {"create_event"}),
    ("What appointments do I have on Friday?", {"list_events"}),
    ("Show me what's in the notes.txt file", {"read_file"}),
    ("Which files are in the downloads folder?", {"list_directory"}),
    ("Search the web for reviews of the new phone", {"web_search"}),
    ("What is 17 multiplied by 23, divided by 4?", {"calculator"}),
    ("How many kilometres is 26 miles?", {"convert_units"}),
    ("How much is 100 euros in Japanese yen?", {"currency_exchange"}),
    ("What's Apple's stock price today?", {"stock_price"}),
    ("How many orders are in the database tables?", {"sql_query", "list_tables"}),
    ("Translate 'good morning' into German", {"translate_text"}),
    ("Find me a flight from Paris to Rome on May 3", {"search_flights", "book_flight"}),
    ("Reserve a hotel room in Vienna for two nights", {"book_hotel"}),
    ("How do I get from the station to the museum?", {"get_directions"}),
    ("Find a good sushi restaurant near me", {"find_restaurant"}),
    ("Where is my parcel? Tracking number 1Z999", {"track_package"}),
    ("The customer says the app crashes: open a support ticket", {"create_ticket"}),
    ("Refund the payment of order 5512", {"refund_payment"}),
    ("Text my sister that I'm running late", {"send_sms"}),
    ("Remind me to call the dentist at 5pm", {"set_reminder"}),
    ("Set a timer for 12 minutes", {"set_timer"}),
    ("Play some jazz", {"play_music"}),
    ("What are today's headlines about the election?", {"news_headlines"}),
    ("Run this Python snippet and tell me what it prints", {"run_python"}),
    ("File a bug in the tracker: the login page is broken", {"create_issue"}),
    ("Draw a picture of a cat riding a bicycle", {"generate_image"}),
]
"""Thirty questions, each with the tools that answer it."""
