from tickets_import import parse


def test_simple_rows():
    rows = parse("id,subject,body,tags\n1,Login,Cannot log in,auth;web\n")
    assert rows == [{"id": "1", "subject": "Login", "body": "Cannot log in", "tags": "auth;web"}]
