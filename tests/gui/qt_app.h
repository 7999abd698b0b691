#pragma once
// The one Qt application object a test process needs, made on its first use (gtest's main knows
// nothing of Qt). The models' tests take a QCoreApplication, which shows that the models need no
// widgets; the widgets' tests take widgets_app.h's QApplication instead.
#include <QByteArray>
#include <QCoreApplication>
#include <QFile>
#include <QString>

#include <gtest/gtest.h>

namespace sb::viewer::test {

inline QCoreApplication& core_app() {
  static int argc = 1;
  static char name[] = "gui_models_test";
  static char* argv[] = {name, nullptr};
  static QCoreApplication instance(argc, argv);
  return instance;
}

inline void write_file(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly)) << path.toStdString();
  f.write(bytes);
}

}  // namespace sb::viewer::test
