use super::*;

fn q(name: &str) -> String {
    Ident::new("t", name).unwrap().to_string()
}

#[test]
fn keyword_list_is_sorted_for_binary_search() {
    assert!(QUOTED_KEYWORDS.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn quotes_like_quote_ident() {
    assert_eq!(q("outbox"), "outbox");
    assert_eq!(q("outbox_2"), "outbox_2");
    assert_eq!(q("Outbox"), "\"Outbox\"");
    assert_eq!(q("my-app"), "\"my-app\"");
    assert_eq!(q("2fa"), "\"2fa\"");
    assert_eq!(q("user"), "\"user\"");
    assert_eq!(q("table"), "\"table\"");
    // unreserved keywords stay bare, as quote_ident leaves them
    assert_eq!(q("status"), "status");
    assert_eq!(q("a\"b"), "\"a\"\"b\"");
    assert_eq!(q("x; drop table y"), "\"x; drop table y\"");
}

#[test]
fn parses_relations_with_sql_rules() {
    let r = QualifiedName::parse("relation", "App.Outbox").unwrap();
    assert_eq!(r.plain(), "app.outbox");
    let r = QualifiedName::parse("relation", "\"My.Schema\".\"Out\"\"box\"").unwrap();
    assert_eq!(r.schema.name(), "My.Schema");
    assert_eq!(r.name.name(), "Out\"box");
    assert_eq!(r.to_string(), "\"My.Schema\".\"Out\"\"box\"");
    let r = QualifiedName::parse("relation", "outbox").unwrap();
    assert_eq!(r.plain(), "public.outbox");
}

#[test]
fn refuses_injection_and_bad_shapes() {
    for bad in [
        "app.outbox; drop table x",
        "app.outbox--",
        "a.b.c",
        "app.",
        ".outbox",
        "\"app.outbox",
        "app.1outbox",
        "",
        "app.out box",
    ] {
        assert!(
            QualifiedName::parse("relation", bad).is_err(),
            "{bad:?} should be refused"
        );
    }
    let long = format!("app.{}", "x".repeat(64));
    assert!(matches!(
        QualifiedName::parse("relation", &long),
        Err(NameError::TooLong { .. })
    ));
    assert!(QualifiedName::parse("relation", "app.\"a\u{0}b\"").is_err());
    // a part that is fine quoted says so, quoted
    let said = |text: &str| {
        QualifiedName::parse("relation", text)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        said("demo.out-box"),
        r#"relation "demo.out-box": '-' is not a letter, digit, _ or $; quote the part to keep it as written: "out-box""#
    );
    assert_eq!(
        said("1app.outbox"),
        r#"relation "1app.outbox": an unquoted part must start with a letter or _, not '1'; quote the part to keep it as written: "1app""#
    );
    assert_eq!(
        said(r#"app.out"box"#),
        r#"relation "app.out\"box": '"' is not a letter, digit, _ or $; quote the part to keep it as written: "out""box""#
    );
    assert!(QualifiedName::parse("relation", r#"demo."out-box""#).is_ok());
}

#[test]
fn per_tenant_relations_resolve() {
    let spec = RelationSpec::parse("relation", "t_{tenant}.outbox").unwrap();
    assert!(spec.is_per_tenant());
    let t = Uuid::parse_str("0190c4e2-8a6c-7e4a-9b1e-00000000abcd").unwrap();
    assert_eq!(
        spec.resolve(Some(t)).unwrap().to_string(),
        "t_0190c4e28a6c7e4a9b1e00000000abcd.outbox"
    );
    assert!(RelationSpec::parse("relation", "{tenant}.{tenant}").is_err());
    // too long once a tenant's id is in: said as given (it showed the sample's zeros)
    let long = format!("t_{{tenant}}_{}.outbox", "x".repeat(30));
    let e = RelationSpec::parse("relation", &long)
        .unwrap_err()
        .to_string();
    assert!(e.contains(&long) && e.contains("32-character id"), "{e}");
    // a typo of the placeholder is refused, not quoted into a name of its own
    for typo in [
        "t_{tenantx}.outbox",
        "t.out{x}box",
        "t_{tenant.outbox",
        "t}.outbox",
    ] {
        let e = RelationSpec::parse("relation", typo)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is the only placeholder"), "{typo}: {e}");
    }
    assert!(
        !RelationSpec::parse("relation", "app.outbox")
            .unwrap()
            .is_per_tenant()
    );
}

#[test]
fn mongo_names() {
    let c = CollectionName::parse("collection", "app.outbox").unwrap();
    assert_eq!((c.db.as_str(), c.collection.as_str()), ("app", "outbox"));
    let c = CollectionName::parse("collection", "app.events.outbox").unwrap();
    assert_eq!(c.collection, "events.outbox");
    assert!(CollectionName::parse("collection", "outbox").is_err());
    assert!(CollectionName::parse("collection", "a$b.outbox").is_err());
    assert!(CollectionName::parse("collection", "app.system.x").is_err());
    // the namespace's limit, refused before any I/O (the server's refusal was a raw dump)
    let long = format!("app.{}", "x".repeat(251));
    assert!(CollectionName::parse("collection", &long).is_ok());
    let e = CollectionName::parse("collection", &format!("{long}y")).unwrap_err();
    assert!(e.to_string().contains("is 256 bytes"), "{e}");
    assert!(CollectionName::parse("collection", "app.out$box").is_err());
}
