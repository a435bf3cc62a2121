//! MongoDB for the tests: the replica set (initiated on first use) and a database of the
//! test's own.

use std::time::{Duration, Instant};

use mongodb::bson::doc;

use super::{mongo_url, unique_name};

/// Connects to the test replica set, initiating it on first use.
pub async fn mongo() -> mongodb::Client {
    let url = mongo_url();
    let direct = {
        let host = url
            .trim_start_matches("mongodb://")
            .split(['/', '?'])
            .next()
            .unwrap_or("127.0.0.1:27018");
        format!("mongodb://{host}/?directConnection=true&serverSelectionTimeoutMS=3000")
    };
    let admin = mongodb::Client::with_uri_str(&direct)
        .await
        .expect("mongo client");
    let deadline = Instant::now() + Duration::from_secs(30);
    let host = direct
        .trim_start_matches("mongodb://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    loop {
        match admin
            .database("admin")
            .run_command(doc! { "hello": 1 })
            .await
        {
            Ok(hello) if hello.get_bool("isWritablePrimary").unwrap_or(false) => break,
            Ok(hello) if hello.get_str("setName").is_err() => {
                // Not initiated yet: initiate (another test may race us; both are fine).
                let _ = admin
                    .database("admin")
                    .run_command(doc! {
                        "replSetInitiate": { "_id": "rs0", "members": [ { "_id": 0, "host": &host } ] }
                    })
                    .await;
            }
            Ok(_) => {}
            Err(e) => panic!(
                "MongoDB is not reachable at {direct} ({e}); run scripts/services.sh (or set OUTBOXCTL_TEST_MONGO_URL)"
            ),
        }
        assert!(
            Instant::now() < deadline,
            "replica set at {direct} did not elect a primary within 30s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    mongodb::Client::with_uri_str(&url)
        .await
        .expect("mongo client")
}

/// A database of the test's own: dropped when the test passes.
pub struct MongoDb {
    pub name: String,
    pub client: mongodb::Client,
}

impl MongoDb {
    pub async fn new(test: &str) -> Self {
        let client = mongo().await;
        let name = unique_name(test);
        client
            .database(&name)
            .drop()
            .await
            .expect("drop test database");
        Self { name, client }
    }

    pub fn db(&self) -> mongodb::Database {
        self.client.database(&self.name)
    }
}

impl Drop for MongoDb {
    fn drop(&mut self) {
        let (name, url) = (self.name.clone(), mongo_url());
        super::clean_up_unless_failed(&format!("database {name}"), || async move {
            let client = mongodb::Client::with_uri_str(&url).await.unwrap();
            let _ = client.database(&name).drop().await;
        });
    }
}
